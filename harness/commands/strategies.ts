// `memeval strategies`: every registered strategy with its options.
import { EXIT, UsageError } from '../../core/errors.js';
import { STRATEGIES } from '../../strategies/index.js';

export function strategiesCommand(argv: string[] = []): number {
  // It takes nothing: a flag meant for another command is a mistake to say, not to ignore.
  if (argv.length > 0) throw new UsageError(`memeval strategies takes no arguments (got ${argv.join(' ')}); usage: memeval strategies`);
  for (const name of STRATEGIES.names()) {
    const def = STRATEGIES.get(name);
    if (!def) continue;
    process.stdout.write(`${name} — ${def.doc}\n`);
    for (const [key, spec] of Object.entries(def.options)) {
      const dflt = spec.default === undefined ? '' : ` (default ${String(spec.default)})`;
      // A string option with fixed values shows them in place of its type.
      const type = spec.values ? spec.values.join(' | ') : spec.type;
      process.stdout.write(`    ${key}: ${type}${spec.required ? ', required' : ''}${dflt} — ${spec.doc}\n`);
    }
  }
  return EXIT.ok;
}

