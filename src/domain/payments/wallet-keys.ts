// Wallet private keys the marketplace holds (sandbox wallets sign their own test payments): generated
// with viem, stored AES-256-GCM-encrypted under a key-encryption key (KEK) bound to the wallet's address.
// The KEK is WALLET_ENCRYPTION_KEY, or else one generated on first start and kept in the database; each
// ciphertext names its KEK, so setting the variable later leaves older keys readable.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Db, SqlRunner } from '../../db/database';
import { evm, type EvmAccount, type Hex } from '../../platform/evm';

/** An arbitrary constant naming the advisory lock that serialises KEK generation across instances. */
const KEK_LOCK = 7_135_202;
const STORED_KEK = 'wallet_kek';

function kekId(kek: Buffer): string {
  return createHash('sha256').update(kek).digest('hex').slice(0, 12);
}

export class WalletKeyring {
  private readonly keks = new Map<string, Buffer>();
  private readonly currentId: string;

  constructor(current: Buffer, others: Buffer[] = []) {
    for (const kek of [current, ...others]) this.keks.set(kekId(kek), kek);
    this.currentId = kekId(current);
  }

  /** `v1.<kek id>.<iv>.<tag>.<ciphertext>` (base64url), with the address as associated data. */
  encrypt(address: string, privateKey: Hex): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keks.get(this.currentId)!, iv);
    cipher.setAAD(Buffer.from(address.toLowerCase()));
    const ciphertext = Buffer.concat([cipher.update(privateKey.slice(2), 'hex'), cipher.final()]);
    return ['v1', this.currentId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  /** The account whose key `blob` holds; throws when it was not encrypted for `address` under a known KEK. */
  decrypt(address: string, blob: string): EvmAccount {
    const [version, id, iv, tag, ciphertext] = blob.split('.');
    const kek = this.keks.get(id);
    if (version !== 'v1' || !kek) throw new Error(`wallet key of ${address} is under an unknown key-encryption key (${id})`);
    const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(address.toLowerCase()));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const key = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    const account = evm().accounts.privateKeyToAccount(`0x${key.toString('hex')}`);
    if (account.address.toLowerCase() !== address.toLowerCase()) throw new Error(`wallet key of ${address} does not derive its address`);
    return account;
  }

  /** A new key pair: the lower-case address and the encrypted key. */
  generate(): { address: string; encryptedKey: string } {
    const { generatePrivateKey, privateKeyToAccount } = evm().accounts;
    const privateKey = generatePrivateKey();
    const address = privateKeyToAccount(privateKey).address.toLowerCase();
    return { address, encryptedKey: this.encrypt(address, privateKey) };
  }
}

/** The keyring: the configured KEK (if any) first, and the stored one, generated on first start without it. */
export async function loadWalletKeyring(db: Db, sql: SqlRunner, configured?: Buffer): Promise<WalletKeyring> {
  let [stored] = await sql.query<{ value: string } | undefined>('SELECT value FROM platform_secrets WHERE name = $1', [STORED_KEK]);
  if (!stored && !configured) {
    stored = await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEK_LOCK})`;
      const existing = await tx.platformSecret.findUnique({ where: { name: STORED_KEK } });
      return existing ?? tx.platformSecret.create({ data: { name: STORED_KEK, value: randomBytes(32).toString('base64') } });
    });
  }
  const storedKek = stored ? Buffer.from(stored.value, 'base64') : undefined;
  const current = configured ?? storedKek!;
  return new WalletKeyring(current, storedKek && configured ? [storedKek] : []);
}
