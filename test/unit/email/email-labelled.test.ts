/**
 * The labelled list (`test/fixtures/email-labelled.json`, >= 150 addresses from RFC examples and public
 * validator suites, each with its source): prints the agreement rate and checks that every disagreement is
 * a documented deliberate difference.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseEmailAddress } from '../../../domain/email/syntax.ts';

interface Labelled {
  address: string;
  valid: boolean;
  source: string;
  note?: string;
  deliberate_difference?: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = JSON.parse(readFileSync(path.resolve(here, '../../fixtures/email-labelled.json'), 'utf8')) as { addresses: Labelled[] };

describe('labelled address list', () => {
  it('has at least 150 addresses, valid and invalid, every one with a source', () => {
    expect(fixture.addresses.length).toBeGreaterThanOrEqual(150);
    expect(fixture.addresses.filter((a) => a.valid).length).toBeGreaterThan(50);
    expect(fixture.addresses.filter((a) => !a.valid).length).toBeGreaterThan(50);
    for (const a of fixture.addresses) expect(a.source.length).toBeGreaterThan(5);
    expect(new Set(fixture.addresses.map((a) => a.address)).size).toBe(fixture.addresses.length);
  });

  it('agreement with the labels: every disagreement is a documented deliberate difference', () => {
    let agree = 0;
    const unexpected: Array<{ address: string; label: boolean; reason: string }> = [];
    const deliberateHeld: string[] = [];
    const bySource = new Map<string, { agree: number; total: number }>();
    for (const a of fixture.addresses) {
      const got = parseEmailAddress(a.address);
      const source = a.source.split(' (')[0]!.split(';')[0]!;
      const s = bySource.get(source) ?? { agree: 0, total: 0 };
      s.total++;
      if (got.valid === a.valid) {
        agree++;
        s.agree++;
        if (a.deliberate_difference) unexpected.push({ address: a.address, label: a.valid, reason: 'documented difference no longer differs' });
      } else if (a.deliberate_difference) {
        deliberateHeld.push(a.address);
      } else {
        unexpected.push({ address: a.address, label: a.valid, reason: got.valid ? 'accepted' : got.reason });
      }
      bySource.set(source, s);
    }
    const total = fixture.addresses.length;
    console.log(`labelled e-mail list: ${agree}/${total} agree with their source's label (${((100 * agree) / total).toFixed(1)}%); ${deliberateHeld.length} deliberate differences`);
    for (const [source, s] of bySource) console.log(`  ${s.agree}/${s.total}  ${source}`);
    expect(unexpected).toEqual([]);
  });
});
