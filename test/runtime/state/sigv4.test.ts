import { EMPTY_SHA256, signS3Request } from '../../../lib/runtime/state/sigv4';
import { describeLock, parseLock } from '../../../lib/runtime/state/lock-info';

describe('SigV4 for S3', () => {
  // The GET Object example of the S3 API reference (Signature Version 4, header-based auth).
  const example = () =>
    signS3Request({
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
      payloadSha256: EMPTY_SHA256,
      now: new Date(Date.UTC(2013, 4, 24)),
      headers: { range: 'bytes=0-9' },
    });

  test('matches the reference signature', () => {
    expect(example().authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
    expect(example()['x-amz-date']).toBe('20130524T000000Z');
  });

  test('another secret, region or path gives another signature; the session token is signed', () => {
    const base = example().authorization;
    const other = signS3Request({ method: 'GET', url: new URL('http://127.0.0.1:8080/capi-state/env/a%20b.tfstate'), region: 'RegionOne', credentials: { accessKeyId: 'k', secretAccessKey: 's', sessionToken: 't' }, payloadSha256: EMPTY_SHA256, now: new Date(0) });
    expect(other.authorization).not.toBe(base);
    expect(other.authorization).toContain('/19700101/RegionOne/s3/aws4_request');
    expect(other.authorization).toContain('SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token');
    expect(other['x-amz-security-token']).toBe('t');
  });
});

describe('Terraform lock objects', () => {
  test('holder, operation and time are read from the lock JSON', () => {
    const lock = parseLock(JSON.stringify({ ID: 'abc', Operation: 'OperationTypeApply', Who: 'ci@runner-3', Version: '1.11.4', Created: '2026-11-25T07:00:00Z', Path: 'b/k' }));
    expect(describeLock(lock)).toBe('ci@runner-3 (apply, since 2026-11-25T07:00:00Z, Terraform 1.11.4, lock ID abc)');
  });

  test('a lock object that is not JSON still counts as a lock, fields unknown', () => {
    expect(parseLock('garbage')).toEqual({ id: '?', who: '?', operation: '?', created: '?', version: '?' });
  });
});
