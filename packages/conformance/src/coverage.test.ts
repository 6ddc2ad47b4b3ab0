import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { armsOf } from './harness/verifies.js';
import type { Requirement } from './requirements.js';
import { requirementIds, requirements } from './requirements.js';

const scenariosDir = join(import.meta.dirname, 'scenarios');
const sources = readdirSync(scenariosDir)
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => readFileSync(join(scenariosDir, f), 'utf8'));
const all = sources.join('\n');

/** Every `verifies('<id>'` call in the scenario sources. */
const cited = new Set([...all.matchAll(/verifies\(\s*'([^']+)'/g)].map((m) => m[1]));

describe('requirements coverage', () => {
  test('the manifest holds every rule of docs/extension-spec.md: R1–R74 and the wire rules W1–W15', () => {
    const spec = readFileSync(join(import.meta.dirname, '../../../docs/extension-spec.md'), 'utf8');
    const numbered = [...spec.matchAll(/\*\*([RW]\d+)\b/g)].map((m) => m[1]);
    const inManifest = requirementIds.map((id) => (requirements[id] as Requirement).rule);
    for (const rule of numbered) expect(inManifest, `${rule} has no requirement`).toContain(rule);
    expect(numbered.length).toBeGreaterThanOrEqual(80);
  });

  test('every requirement is verified by a scenario', () => {
    const uncited = requirementIds.filter((id) => !cited.has(id));
    expect(uncited).toEqual([]);
  });

  test('every verified id is in the manifest', () => {
    const unknown = [...cited].filter((id) => !requirementIds.includes(id as never));
    expect(unknown).toEqual([]);
  });

  test('every known failure names an arm the requirement runs on and a verification that exists', () => {
    for (const id of requirementIds) {
      const requirement = requirements[id] as Requirement;
      for (const failure of requirement.knownFailures ?? []) {
        expect(armsOf(requirement), `${id}: ${failure.arm}`).toContain(failure.arm);
        expect(failure.reason.length).toBeGreaterThan(20);
        if (failure.variant !== undefined) {
          expect(all, `${id}: variant '${failure.variant}'`).toContain(
            `variant: '${failure.variant}'`,
          );
        }
      }
    }
  });

  test('every arm restriction explains itself', () => {
    for (const id of requirementIds) {
      const requirement = requirements[id] as Requirement;
      if (requirement.arms !== undefined) expect(requirement.armsNote ?? '', id).not.toBe('');
    }
  });

  test('every store restriction explains itself and names a store', () => {
    for (const id of requirementIds) {
      const requirement = requirements[id] as Requirement;
      if (requirement.stores === undefined) continue;
      expect(requirement.storesNote ?? '', id).not.toBe('');
      expect(requirement.stores.length, id).toBeGreaterThan(0);
    }
  });
});
