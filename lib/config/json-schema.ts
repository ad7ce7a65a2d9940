/** JSON Schema of environment files for editors (yaml-language-server), generated from the zod schema. */
import { z } from 'zod';
import { environmentSchema } from './environment-schema';

/**
 * @param io `input`: a file as written (what editors check); `output`: with every default applied.
 */
export function environmentJsonSchema(io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const schema = z.toJSONSchema(environmentSchema, { io, unrepresentable: 'any', target: 'draft-7' }) as Record<string, unknown>;
  return {
    ...schema,
    $id: 'https://capi-openstack-cdktf/environment.schema.json',
    title: 'capi-openstack-cdktf environment',
  };
}
