import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 3 (Shape): core imports neither express nor grpc nor any HTTP code.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FORBIDDEN =
  /(^|\/)(express|@grpc\/|grpc|@connectrpc\/|connect|http|https|http2|undici|node-fetch|axios|supertest)($|\/)|^node:(http|https|http2|net)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

describe('dependencies', () => {
  it('package.json declares no HTTP, express, gRPC or connect package', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    const names = [
      'dependencies',
      'peerDependencies',
      'devDependencies',
      'optionalDependencies',
    ].flatMap((k) => Object.keys(pkg[k] ?? {}));
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((n) => FORBIDDEN.test(n))).toEqual([]);
  });

  it('no source file imports HTTP, express, gRPC or connect code', () => {
    const offenders: string[] = [];
    const files = sourceFiles(join(root, 'src'));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        const spec = m[1] ?? '';
        if (spec.startsWith('.')) continue;
        if (
          FORBIDDEN.test(spec) ||
          spec.startsWith('@a2a-js/sdk/server/') ||
          spec.startsWith('@a2a-js/sdk/client')
        ) {
          offenders.push(`${file}: ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
