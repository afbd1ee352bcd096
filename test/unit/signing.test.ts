// Standard Webhooks signatures: v1 checked by the reference `standardwebhooks` verifier, v1a by Ed25519.
import { createPrivateKey, createPublicKey, verify } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { newSigningSecret } from '../../src/platform/ids';
import { ed25519Signature, generateSigningKeyPair, hmacSignature, publicJwk, webhookHeaders } from '../../src/platform/signing';

const now = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ type: 'execution.completed', data: { id: 'ex_1', amount: 12.5 } });
const pair = generateSigningKeyPair();
const privateKey = createPrivateKey(pair.privateKey);
const publicKey = createPublicKey(pair.publicKey);

describe('hmacSignature (v1)', () => {
  it('verifies with the standardwebhooks reference implementation', () => {
    const secret = newSigningSecret();
    const ts = now();
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts), 'webhook-signature': hmacSignature(secret, 'evt_1', ts, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('matches the specification example', () => {
    // The example secret, id, timestamp, payload and signature from the Standard Webhooks specification.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const payload = '{"test": 2432232314}';
    expect(hmacSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, payload)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('fails verification for another secret or a changed body', () => {
    const secret = newSigningSecret();
    const ts = now();
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts), 'webhook-signature': hmacSignature(secret, 'evt_1', ts, body) };
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body.replace('12.5', '99'), headers)).toThrow(WebhookVerificationError);
  });

  it('refuses a secret without the whsec_ prefix and a fractional timestamp', () => {
    expect(() => hmacSignature('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'evt_1', now(), body)).toThrow(/whsec_/);
    expect(() => hmacSignature(newSigningSecret(), 'evt_1', 1.5, body)).toThrow(/whole seconds/);
  });
});

describe('ed25519Signature (v1a)', () => {
  const verifyV1a = (signature: string, content: string) =>
    verify(null, Buffer.from(content), publicKey, Buffer.from(signature.replace(/^v1a,/, ''), 'base64'));

  it('signs id.timestamp.body so that the public key verifies it', () => {
    const signature = ed25519Signature(privateKey, 'evt_2', 1700000000, body);
    expect(signature).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verifyV1a(signature, `evt_2.1700000000.${body}`)).toBe(true);
  });

  it('does not verify for a changed body, id or timestamp', () => {
    const signature = ed25519Signature(privateKey, 'evt_2', 1700000000, body);
    expect(verifyV1a(signature, `evt_2.1700000000.${body} `)).toBe(false);
    expect(verifyV1a(signature, `evt_3.1700000000.${body}`)).toBe(false);
    expect(verifyV1a(signature, `evt_2.1700000001.${body}`)).toBe(false);
  });
});

describe('keys', () => {
  it('generates an Ed25519 pair as PEM', () => {
    expect(pair.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(pair.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(privateKey.asymmetricKeyType).toBe('ed25519');
  });

  it('publishes the public key as an RFC 8037 JWK that imports back to the same key', () => {
    const jwk = publicJwk(publicKey, 'k1');
    expect(jwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), kid: 'k1', use: 'sig', alg: 'EdDSA' });
    const imported = createPublicKey({ key: jwk, format: 'jwk' });
    expect(imported.export({ type: 'spki', format: 'pem' })).toBe(pair.publicKey);
  });

  it('refuses to publish a private key', () => {
    expect(() => publicJwk(privateKey, 'k1')).toThrow(TypeError);
  });
});

describe('webhookHeaders', () => {
  it('always carries v1a, and v1 too when the subscriber has a secret', () => {
    const ts = now();
    const withoutSecret = webhookHeaders({ id: 'evt_4', timestampSeconds: ts, body, privateKey });
    expect(withoutSecret).toEqual({
      'webhook-id': 'evt_4',
      'webhook-timestamp': String(ts),
      'webhook-signature': expect.stringMatching(/^v1a,\S+$/),
      'content-type': 'application/json',
    });

    const secret = newSigningSecret();
    const headers = webhookHeaders({ id: 'evt_4', timestampSeconds: ts, body, secret, privateKey });
    const [v1a, v1, ...rest] = headers['webhook-signature'].split(' ');
    expect(rest).toEqual([]);
    expect(v1a).toBe(withoutSecret['webhook-signature']);
    expect(v1).toBe(hmacSignature(secret, 'evt_4', ts, body));
  });

  it('signs with the secret alone (a provider call, CONTRACT §6), and refuses to sign with nothing', () => {
    const secret = newSigningSecret();
    const ts = now();
    const headers = webhookHeaders({ id: 'ex_7', timestampSeconds: ts, body, secret });
    expect(headers['webhook-signature']).toBe(hmacSignature(secret, 'ex_7', ts, body));
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => webhookHeaders({ id: 'ex_8', timestampSeconds: ts, body })).toThrow(TypeError);
  });

  it('verifies with standardwebhooks even though the header also carries the v1a entry', () => {
    const secret = newSigningSecret();
    const headers = webhookHeaders({ id: 'evt_5', timestampSeconds: now(), body, secret, privateKey });
    expect(headers['webhook-signature'].startsWith('v1a,')).toBe(true);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('verifies the v1a entry with crypto.verify and fails it for a changed body', () => {
    const ts = now();
    const headers = webhookHeaders({ id: 'evt_6', timestampSeconds: ts, body, privateKey });
    const signature = Buffer.from(headers['webhook-signature'].slice('v1a,'.length), 'base64');
    expect(verify(null, Buffer.from(`evt_6.${ts}.${body}`), publicKey, signature)).toBe(true);
    expect(verify(null, Buffer.from(`evt_6.${ts}.${body.replace('ex_1', 'ex_2')}`), publicKey, signature)).toBe(false);
  });
});
