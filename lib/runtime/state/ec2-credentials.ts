/**
 * S3 credentials of an OpenStack cloud: Keystone's EC2 credentials of the user for the project
 * (Swift's s3api and Ceph RGW with Keystone check signatures against them). One per user and
 * project is reused; one is created when there is none.
 */
import { keystoneV3Url, OpenStackApiError, OpenStackSession } from '../openstack-session';
import { S3Credentials } from './sigv4';

interface Ec2Credential {
  readonly access: string;
  readonly secret: string;
  readonly tenant_id?: string;
  readonly project_id?: string;
}

export async function projectEc2Credentials(session: OpenStackSession, authUrl: string): Promise<{ credentials: S3Credentials; created: boolean }> {
  const userId = session.userId;
  if (!userId) throw new OpenStackApiError('Keystone did not name the user of the token: cannot look up its EC2 credentials');
  const base = `${keystoneV3Url(authUrl)}/users/${encodeURIComponent(userId)}/credentials/OS-EC2`;
  const listed = await session.request<{ credentials?: Ec2Credential[] }>('GET', base);
  const mine = (listed.body?.credentials ?? []).find((c) => (c.tenant_id ?? c.project_id) === session.projectId);
  if (mine) return { credentials: { accessKeyId: mine.access, secretAccessKey: mine.secret }, created: false };
  const made = await session.request<{ credential?: Ec2Credential }>('POST', base, { body: { tenant_id: session.projectId }, accept: [200, 201] });
  const c = made.body?.credential;
  if (!c?.access || !c.secret) throw new OpenStackApiError(`POST ${base}: Keystone answered without an access key`);
  return { credentials: { accessKeyId: c.access, secretAccessKey: c.secret }, created: true };
}
