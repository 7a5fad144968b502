// The usage text, on its own so `memeval --help` loads nothing else.
export const HELP = `memeval — evaluate conversation-memory strategies

Usage:
  memeval run [--config FILE] [--datasets] [GLOB ...] [--strategies id,id] [--out DIR]
              [--model M] [--judge M] [--concurrency N] [--repeat N] [--agent direct|runner]
              [--no-cache] [--max-errors N|P%] [--gate] [--baseline RUN] [--resume RUN_DIR]
              [--shard I/N]   run the I-th of N slices of the jobs (one per machine)
              [--batch]       make the model calls through the provider's Batch API
  memeval merge SHARD_DIR ... [--out DIR]   combine every shard into one run and its reports
  memeval diff BASE_RUN CANDIDATE_RUN [--out DIR] [--allow-protocol-change]
  memeval gate [RUN] [--baseline RUN] [--config FILE]
  memeval calibrate [--judge MODEL] [--data DIR] [--out DIR] [--config FILE]
  memeval import locomo|longmemeval FILE.json --out DIR [--clean] [--limit N] [--sample N --seed S]
              [--exclude-category N[,M]] [--errata FILE] [--types a,b]   (memeval import --help)
  memeval export RUN_DIR --format longmemeval|locomo [--strategy ID] [--out PATH]
              [--source locomo10.json] [--repeat N]   answers in the benchmark's own format
  memeval report RUN_DIR        re-render a run's reports from its run.json
  memeval plan [--config FILE] [--detect POINTS] [--baseline-accuracy P] [--icc R] [--run RUN_DIR]
                                what accuracy difference the suite can detect (80% power)
  memeval strategies            list strategies and their options

Models: offline (built-in extractive reader, no network), openai:<name>, <provider>:<name>.
Exit codes: 0 ok · 2 bad input or usage · 3 the run could not measure (errors past
--max-errors, default 0; bad key, unknown model or nothing listening) · 100 a gate
failed · 130 interrupted, 143 stopped by SIGTERM (resume with --resume) · 1 memeval itself crashed.`;
