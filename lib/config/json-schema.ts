/** JSON Schema of environment files for editors (yaml-language-server), generated from the zod schema. */
import { z } from 'zod';
import { environmentSchema } from './environment-schema';

export function environmentJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(environmentSchema, { io: 'input', unrepresentable: 'any', target: 'draft-7' }) as Record<string, unknown>;
  return {
    ...schema,
    $id: 'https://capi-openstack-cdktf/environment.schema.json',
    title: 'capi-openstack-cdktf environment',
  };
}
