// Money as integers: base units and their decimal strings, cents and base units, the fee, the token price of
// an ACP offering, and what a PAYMENT-SIGNATURE must be before the facilitator is asked about it.
import fc from 'fast-check';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { centsInToken } from '../../src/domain/acp/acp';
import { centsToUnits, feeOf, formatUnits, parseUnits, unitsToCents } from '../../src/domain/payments/setup';
import { acceptedMatches, readPayment, requirementsFor } from '../../src/domain/payments/x402';
import { ValidationFailed } from '../../src/platform/errors';
import type { PaymentSetup } from '../../src/domain/payments/setup';

const usdc = { asset: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', symbol: 'USDC', decimals: 6, eip712: { name: 'USDC', version: '2' } } };

describe('units', () => {
  it('formats and parses base units with every decimal, both ways', () => {
    expect(formatUnits(1_500_000n, 6)).toBe('1.500000');
    expect(formatUnits(1n, 6)).toBe('0.000001');
    expect(formatUnits(-750_001n, 6)).toBe('-0.750001');
    expect(formatUnits(40_000_000_000_000_000n, 18)).toBe('0.040000000000000000');
    expect(parseUnits('2.5', 6)).toBe(2_500_000n);
    expect(parseUnits('10', 6)).toBe(10_000_000n);
    expect(() => parseUnits('1.1234567', 6)).toThrow();
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        fc.integer({ min: 1, max: 18 }),
        (units, decimals) => parseUnits(formatUnits(units, decimals), decimals) === units,
      ),
    );
  });

  it('counts a cent as 10^(decimals-2) base units, and only whole cents back', () => {
    expect(centsToUnits(usdc, 5)).toBe(50_000n);
    expect(unitsToCents(usdc, 70_000n)).toBe(7);
    expect(unitsToCents(usdc, 12_345n)).toBeUndefined();
    fc.assert(fc.property(fc.integer({ min: 0, max: 1_000_000 }), (cents) => unitsToCents(usdc, centsToUnits(usdc, cents)) === cents));
  });

  it('rounds the fee down, so that fee and share always add up to the price', () => {
    expect(feeOf({ feeBps: 1000 }, 50_000n)).toBe(5_000n);
    expect(feeOf({ feeBps: 1500 }, 10_001n)).toBe(1_500n);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 5000 }), (price, feeBps) => {
        const fee = feeOf({ feeBps }, price);
        return fee >= 0n && fee <= price && fee * 10_000n <= price * BigInt(feeBps) && (fee + 1n) * 10_000n > price * BigInt(feeBps);
      }),
    );
  });
});

describe('ACP token prices', () => {
  const at = (rate: string, decimals = 18) => ({ services: { config: { acp: { tokenUsdRate: rate, tokenDecimals: decimals } } } }) as never;

  it('converts cents at the configured rate, rounding up to the token base unit', () => {
    expect(centsInToken(at('1.25'), 5)).toBe(40_000_000_000_000_000n);
    expect(centsInToken(at('1'), 100)).toBe(10n ** 18n);
    // $0.01 at $3 a token: 0.00333… rounded up.
    expect(centsInToken(at('3', 6), 1)).toBe(3_334n);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 100_000 }), (cents, rateCents) => {
        const rate = (rateCents / 100).toFixed(2);
        const units = centsInToken(at(rate, 6), cents);
        // The tokens are worth at least the price, and one base unit less would not be.
        return units * BigInt(rateCents) >= BigInt(cents) * 1_000_000n && (units - 1n) * BigInt(rateCents) < BigInt(cents) * 1_000_000n;
      }),
    );
  });
});

describe('a PAYMENT-SIGNATURE', () => {
  const setup = { ...usdc, network: 'eip155:84532', payTo: `0x${'1'.repeat(40)}`, maxTimeoutSeconds: 120 } as unknown as PaymentSetup;
  const required = requirementsFor(setup, 50_000n);
  const authorization = {
    from: `0x${'a'.repeat(40)}`,
    to: setup.payTo,
    value: '50000',
    validAfter: '0',
    validBefore: '9999999999',
    nonce: `0x${'b'.repeat(64)}`,
  };
  const payload = { x402Version: 2, accepted: required, payload: { signature: `0x${'c'.repeat(130)}`, authorization } };

  it('is read from its base64 or its JSON, payer and nonce lower-cased', () => {
    for (const raw of [encodePaymentSignatureHeader(payload as never), JSON.stringify(payload)]) {
      const read = readPayment(raw);
      expect(read).toMatchObject({ payer: authorization.from, nonce: authorization.nonce, value: 50_000n });
      expect(acceptedMatches(read.payload.accepted, required)).toBe(true);
    }
    expect(acceptedMatches({ ...required, amount: '1' }, required)).toBe(false);
    expect(acceptedMatches({ ...required, payTo: `0x${'2'.repeat(40)}` }, required)).toBe(false);
  });

  it.each([
    ['garbage', 'not base64 json'],
    ['another version', JSON.stringify({ ...payload, x402Version: 1 })],
    ['another scheme', JSON.stringify({ ...payload, accepted: { ...required, scheme: 'upto' } })],
    ['no authorization', JSON.stringify({ ...payload, payload: { signature: '0x00' } })],
    ['a bad nonce', JSON.stringify({ ...payload, payload: { ...payload.payload, authorization: { ...authorization, nonce: '0x01' } } })],
    ['a value that is not an integer', JSON.stringify({ ...payload, payload: { ...payload.payload, authorization: { ...authorization, value: '1.5' } } })],
  ])('is refused as 400 naming the header for %s', (_what, raw) => {
    expect(() => readPayment(raw, 'PAYMENT-SIGNATURE')).toThrow(ValidationFailed);
    try {
      readPayment(raw, 'PAYMENT-SIGNATURE');
    } catch (err) {
      expect((err as ValidationFailed).errors.map((e) => e.path)).toEqual(['PAYMENT-SIGNATURE']);
    }
  });
});
