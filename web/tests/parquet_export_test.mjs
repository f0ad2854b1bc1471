// The Parquet files `kraken export` writes, read by an independent reader (the hyparquet npm
// package), must hold exactly the rows of the CSV of the same export, and as many records
// as its JSON. Runs `kraken export --input FILE --format json,csv,parquet --output DIR/` on
// real files: a Kineto trace (kernels, memory_ops, cpu_ops, steps), an nvidia-smi
// capture (samples) and an Nsight Compute report (kernels with counters: nullable columns).
// node parquet_export_test.mjs --kraken BIN --data DATA_DIR --out DIR --modules NODE_MODULES
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { check, failureCount, parseArgs } from './browser_common.mjs';

const args = parseArgs(process.argv.slice(2));
const CASES = [
  { name: 'resnet50_trace', input: 'kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz',
    tables: ['kernels', 'memory_ops', 'cpu_ops', 'steps'] },
  { name: 'nvidia_smi_h100', input: 'nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt',
    tables: ['samples'] },
  { name: 'ncu_a100_sgemm', input: 'ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv', tables: ['kernels'] },
];

// The hyparquet build from web/package-lock.json that `npm ci` put in the build folder.
const require = createRequire(path.join(path.resolve(args.modules), 'noop.js'));
const hyparquet = await import(pathToFileURL(require.resolve('hyparquet')).href);

// RFC 4180: quoted fields may hold commas, doubled quotes and line breaks.
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 1; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\n') { row.push(field); rows.push(row); row = []; field = ''; }
    else field += c;
  }
  if (field !== '' || row.length) { row.push(field); rows.push(row); }
  return rows;
}

// The CSV text of a cell as kraken writes it, from the value hyparquet decoded.
function sameValue(value, field) {
  if (value === null || value === undefined) return field === '';
  if (typeof value === 'bigint') return String(value) === field;
  if (typeof value === 'boolean') return (value ? 'true' : 'false') === field;
  if (typeof value === 'number') return field !== '' && Number(field) === value;
  return value === field;
}

async function compareTable(parquetPath, csvPath) {
  const file = await hyparquet.asyncBufferFromFile(parquetPath);
  const metadata = await hyparquet.parquetMetadataAsync(file);
  const columns = metadata.schema.slice(1).map((e) => e.name);
  const rows = await hyparquet.parquetReadObjects({ file, metadata });
  const csv = parseCsv(fs.readFileSync(csvPath, 'utf8'));
  check(JSON.stringify(csv[0]) === JSON.stringify(columns), `${path.basename(parquetPath)}: the CSV's columns`);
  check(rows.length === csv.length - 1 && Number(metadata.num_rows) === rows.length,
    `${path.basename(parquetPath)}: ${rows.length} rows, the CSV has ${csv.length - 1}`);
  const mismatches = [];
  for (let r = 0; r < Math.min(rows.length, csv.length - 1); r += 1) {
    columns.forEach((name, c) => {
      if (!sameValue(rows[r][name], csv[r + 1][c])) mismatches.push(`row ${r} ${name}: ${rows[r][name]} vs '${csv[r + 1][c]}'`);
    });
  }
  check(mismatches.length === 0, `${path.basename(parquetPath)}: every value equals the CSV's${mismatches.length ? ` (${mismatches.slice(0, 5).join('; ')})` : ''}`);
  return rows;
}

async function runCase(c) {
  console.log(`case ${c.name}`);
  const input = path.join(args.data, c.input);
  if (!fs.existsSync(input)) throw new Error(`missing real data file ${input}`);
  const dir = path.join(args.out, c.name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  execFileSync(args.kraken, ['export', '--input', input, '--format', 'json,csv,parquet', '--output', `${dir}/`],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const written = fs.readdirSync(dir).sort();
  const json = written.filter((f) => f.endsWith('.json'));
  check(json.length === 1, `one JSON document (${json})`);
  const doc = JSON.parse(fs.readFileSync(path.join(dir, json[0]), 'utf8'));
  const tables = written.filter((f) => f.endsWith('.parquet')).map((f) => f.split('.').slice(-2)[0]);
  check(JSON.stringify([...tables].sort()) === JSON.stringify([...c.tables].sort()), `tables ${tables} are ${c.tables}`);
  for (const f of written.filter((name) => name.endsWith('.parquet'))) {
    const table = f.split('.').slice(-2)[0];
    const rows = await compareTable(path.join(dir, f), path.join(dir, f.replace(/\.parquet$/, '.csv')));
    // The same records as the JSON document of the export.
    const expected = table === 'samples' ? doc.series.reduce((n, s) => n + s.samples.length, 0) : doc[table].length;
    check(rows.length === expected, `${table}: ${rows.length} rows, the JSON has ${expected}`);
    if (table === 'kernels' || table === 'cpu_ops' || table === 'memory_ops') {
      // JSON numbers parse to doubles: compare the times as doubles (the CSV check above is exact).
      check(rows.every((row, i) => row.name === doc[table][i].name && Number(row.start_ns) === doc[table][i].start_ns),
        `${table}: names and start times in the JSON's order`);
    }
    if (table === 'kernels' && c.name === 'ncu_a100_sgemm') {
      check(rows.some((row) => typeof row.fp32_flops === 'number') && rows.some((row) => row.sm_throughput_pct === null),
        'kernels: measured counters are numbers, unmeasured ones null');
    }
  }
}

fs.mkdirSync(args.out, { recursive: true });
for (const c of CASES) await runCase(c);
const failures = failureCount();
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
