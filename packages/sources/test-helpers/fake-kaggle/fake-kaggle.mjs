// A stand-in for the official `kaggle` CLI (github.com/Kaggle/kaggle-api,
// src/kaggle/cli.py and api/kaggle_api_extended.py), owned by the tests: the
// real one needs PyPI and the Kaggle servers. It takes the same arguments for
// the commands junobench runs, writes the same files (<slug>.ipynb and
// kernel-metadata.json with the same keys, dataset-metadata.json as
// `datasets metadata` writes it, <slug>.zip downloads), authenticates the
// same way (KAGGLE_USERNAME/KAGGLE_KEY, else kaggle.json in $KAGGLE_CONFIG_DIR
// or ~/.kaggle), and fails the same way: the HTTP error line of the request
// that failed ("404 Client Error: Not Found for url: …") and exit code 1;
// argparse usage errors exit 2.
//
// Its "Kaggle" is a folder named by $FAKE_KAGGLE_SERVER:
//   users.json                                {"<username>": "<key>"}  (legacy API keys)
//   tokens.json                               {"<API token>": "<username>"}
//   kernels/<owner>/<slug>/kernel.json        metadata (title, id_no, is_private, dataset_sources, …)
//   kernels/<owner>/<slug>/source.ipynb       the notebook as run, saved outputs included (what its page shows);
//                                             `kernels pull` writes it without outputs, as Kaggle stores the source
//   datasets/<owner>/<slug>/dataset.json      title, licenses, isPrivate, …
//   datasets/<owner>/<slug>/files/**          zipped on download
//   datasets/<owner>/<slug>/zip-extra.json [{ "name", "content" }]: raw entries appended to the zip (hostile names too)
//   competitions/<name>/competition.json      { "title", "rulesAccepted" }
//   competitions/<name>/files/**
//   faults.json                               { "<command> <ref>": { "status": 429, "times": 2 } }
// Every call is appended to calls.log (arguments only: never credentials).
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const VERSION = '1.7.4.5';
const API = 'https://api.kaggle.com/v1';
const server = process.env.FAKE_KAGGLE_SERVER;
const args = process.argv.slice(2);

function out(line) {
  process.stdout.write(`${line}\n`);
}
function fail(line, code = 1) {
  out(line);
  process.exit(code);
}
function usage(message) {
  process.stderr.write(
    'usage: kaggle [-h] [-v] [-W] {competitions,c,datasets,d,kernels,k,models,m,files,f,config} ...\n',
  );
  process.stderr.write(`kaggle: error: ${message}\n`);
  process.exit(2);
}
// json.dumps with its default separators (", " and ": ") and ensure_ascii.
function pythonJson(value) {
  return JSON.stringify(value)
    .replace(/"(?:[^"\\]|\\.)*"|[,:]/g, (t) => (t === ',' ? ', ' : t === ':' ? ': ' : t))
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
// kagglesdk's to_dict(ignore_defaults=True): a field equal to its default is omitted.
function dropDefaults(obj) {
  return Object.fromEntries(
    Object.entries(obj).filter(
      ([, v]) => v !== undefined && v !== null && v !== 0 && v !== false && !(Array.isArray(v) && v.length === 0),
    ),
  );
}
// json.dump's ensure_ascii: every non-ASCII character as \uXXXX.
function asciiJson(text) {
  return text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}
function httpError(status, endpoint) {
  const reason =
    { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error' }[
      status
    ] ?? 'Error';
  const kind = status >= 500 ? 'Server Error' : 'Client Error';
  fail(`${status} ${kind}: ${reason} for url: ${API}/${endpoint}`);
}

if (args[0] === '-v' || args[0] === '--version') {
  out(`Kaggle API ${VERSION}`);
  process.exit(0);
}
if (!server || !existsSync(server)) {
  process.stderr.write('fake kaggle: FAKE_KAGGLE_SERVER must name the folder that stands for Kaggle\n');
  process.exit(70);
}
appendFileSync(path.join(server, 'calls.log'), `${JSON.stringify(args)}\n`);

// --- arguments, as the real CLI's argparse accepts them for these commands ---
const COMMANDS = {
  c: 'competitions',
  competitions: 'competitions',
  d: 'datasets',
  datasets: 'datasets',
  k: 'kernels',
  kernels: 'kernels',
};
const group = COMMANDS[args[0]];
if (!group)
  usage(
    `argument command: invalid choice: '${args[0] ?? ''}' (choose from 'competitions', 'c', 'datasets', 'd', 'kernels', 'k', 'models', 'm', 'files', 'f', 'config')`,
  );
const sub = args[1];
const opts = { positional: [], flags: new Set(), values: {} };
const VALUE_FLAGS = {
  '-p': 'path',
  '--path': 'path',
  '-c': 'competition',
  '--competition': 'competition',
  '-f': 'file',
  '--file': 'file',
  '-d': 'dataset',
  '--dataset': 'dataset',
  '-k': 'kernel',
  '--kernel': 'kernel',
};
for (let i = 2; i < args.length; i++) {
  const a = args[i];
  if (VALUE_FLAGS[a]) {
    if (i + 1 >= args.length) usage(`argument ${a}: expected one argument`);
    opts.values[VALUE_FLAGS[a]] = args[++i];
  } else if (a.startsWith('-')) opts.flags.add(a);
  else opts.positional.push(a);
}

// --- authentication, as authenticate() does it: an API token (KAGGLE_API_TOKEN, else the
// access_token file; Kaggle → Settings → API → Generate New Token), checked with the server
// and ignored when it is not valid; then the legacy username/key ---
function configDir() {
  if (process.env.KAGGLE_CONFIG_DIR) return process.env.KAGGLE_CONFIG_DIR;
  const home = path.join(os.homedir(), '.kaggle');
  if (existsSync(home)) return home;
  return path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'kaggle');
}
function authenticate() {
  const tokenFile = path.join(configDir(), 'access_token');
  const token = process.env.KAGGLE_API_TOKEN || (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '');
  if (token) {
    const tokens = existsSync(path.join(server, 'tokens.json')) ? readJson(path.join(server, 'tokens.json')) : {};
    if (Object.hasOwn(tokens, token)) return { username: tokens[token], ok: true };
  }
  let username = process.env.KAGGLE_USERNAME;
  let key = process.env.KAGGLE_KEY;
  if (!username || !key) {
    const file = path.join(configDir(), 'kaggle.json');
    // _authenticate_with_legacy_apikey: with no key anywhere, commands in command_prefixes_allowing_anonymous_access
    // ("datasets download", "datasets files", matched on the arguments as typed) go on without an account.
    if (!existsSync(file) && args.length > 2 && /^(datasets download|datasets files)/.test(args.join(' ')))
      return { username: null, ok: true };
    if (!existsSync(file)) {
      out('You must authenticate before you can call the Kaggle API.');
      out(
        'Follow the instructions to authenticate at: https://github.com/Kaggle/kaggle-cli/blob/main/docs/README.md#authentication',
      );
      process.exit(1);
    }
    if ((statSync(file).mode & 0o077) !== 0) {
      out(
        `Warning: Your Kaggle API key is readable by other users on this system! To fix this, you can run 'chmod 600 ${file}'`,
      );
    }
    const cfg = readJson(file);
    username = username || cfg.username;
    key = key || cfg.key;
    for (const [name, v] of [
      ['username', username],
      ['key', key],
    ])
      if (!v) fail(`Error: Missing ${name} in configuration.`);
  }
  const users = existsSync(path.join(server, 'users.json')) ? readJson(path.join(server, 'users.json')) : {};
  return { username, ok: users[username] === key };
}

function fault(command, ref, endpoint) {
  const file = path.join(server, 'faults.json');
  if (!existsSync(file)) return;
  const f = readJson(file)[`${command} ${ref}`];
  if (!f) return;
  const stateDir = path.join(server, 'state');
  mkdirSync(stateDir, { recursive: true });
  const counter = path.join(stateDir, `${command}-${ref}`.replace(/[^A-Za-z0-9._-]/g, '_'));
  const n = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;
  if (f.times !== undefined && n >= f.times) return;
  writeFileSync(counter, String(n + 1));
  httpError(f.status, endpoint);
}

function splitRef(ref, what) {
  const parts = (ref ?? '').split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1])
    fail(`${what} must be specified in the form of '{username}/{${what.toLowerCase()}-slug}'`);
  return parts;
}

function listFiles(dir, prefix = '') {
  const outList = [];
  for (const name of readdirSync(dir).sort()) {
    const abs = path.join(dir, name);
    const rel = prefix ? `${prefix}/${name}` : name;
    if (statSync(abs).isDirectory()) outList.push(...listFiles(abs, rel));
    else outList.push({ name: rel, abs });
  }
  return outList;
}

// A deflate zip written by hand: entry names are written as given, so a
// test can make a hostile archive (`../x`, `/etc/x`) the way a server could.
function writeZip(file, entries) {
  const fd = openSync(file, 'w');
  const central = [];
  let offset = 0;
  const put = (buf) => {
    writeSync(fd, buf);
    offset += buf.length;
  };
  for (const e of entries) {
    const data = e.abs ? readFileSync(e.abs) : Buffer.from(e.content ?? '');
    const name = Buffer.from(e.name, 'utf8');
    const packed = zlib.deflateRawSync(data);
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(0x5821, 10); // 2024-01-01 00:00 in DOS time/date halves
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const at = offset;
    put(local);
    put(name);
    put(packed);
    const cen = Buffer.alloc(46);
    cen.writeUInt32LE(0x02014b50, 0);
    cen.writeUInt16LE(0x031e, 4);
    cen.writeUInt16LE(20, 6);
    cen.writeUInt16LE(0x0800, 8);
    cen.writeUInt16LE(8, 10);
    cen.writeUInt32LE(0x5821, 12);
    cen.writeUInt32LE(crc >>> 0, 16);
    cen.writeUInt32LE(packed.length, 20);
    cen.writeUInt32LE(data.length, 24);
    cen.writeUInt16LE(name.length, 28);
    cen.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    cen.writeUInt32LE(at, 42);
    central.push(Buffer.concat([cen, name]));
  }
  const cdStart = offset;
  for (const c of central) put(c);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(central.length, 8);
  end.writeUInt16LE(central.length, 10);
  end.writeUInt32LE(offset - cdStart, 12);
  end.writeUInt32LE(cdStart, 16);
  put(end);
  closeSync(fd);
}

function storedSource(text) {
  let nb;
  try {
    nb = JSON.parse(text);
  } catch {
    return text; // not JSON: served as stored
  }
  for (const c of Array.isArray(nb.cells) ? nb.cells : []) {
    if (c && c.cell_type === 'code') {
      c.outputs = [];
      c.execution_count = null;
    }
  }
  return JSON.stringify(nb);
}

function progress(bytes) {
  const mb = (bytes / 1048576).toFixed(2);
  process.stderr.write(`100%|██████████| ${mb}M/${mb}M [00:00<00:00, 52.1MB/s]\n`);
}

const auth = authenticate();
const key = `${group} ${sub}`;

if (key === 'kernels pull') {
  const ref = opts.positional[0] ?? opts.values.kernel;
  if (!ref) usage('the following arguments are required: kernel');
  const [owner, slug] = splitRef(ref, 'Kernel');
  if (slug.length < 5) fail('Kernel slug must be at least five characters');
  const endpoint = 'kernels.KernelsApiService/GetKernel';
  if (!auth.ok) httpError(401, endpoint);
  fault('kernels pull', ref, endpoint);
  const dir = path.join(server, 'kernels', owner, slug);
  if (!existsSync(path.join(dir, 'kernel.json'))) httpError(404, endpoint);
  const k = readJson(path.join(dir, 'kernel.json'));
  if ((k.is_private === true || k.is_private === 'true') && owner !== auth.username) httpError(403, endpoint);
  const target = opts.values.path ?? process.cwd();
  mkdirSync(target, { recursive: true });
  const codeFile = `${slug}.ipynb`;
  // kernels_pull writes `blob.source` (ApiKernelBlob.source of GetKernel): the notebook as Kaggle stores its source.
  // source.ipynb is the notebook as run, with its outputs — what its page on kaggle.com shows and downloads. The stored
  // source has none: the CLI repository's own Kaggle-saved notebook (tests/kernel/testing-x.ipynb at 1744cda) carries
  // Kaggle's per-cell run timestamps but `"execution_count":null,"outputs":[]`, compact JSON as Kaggle writes it.
  writeFileSync(path.join(target, codeFile), storedSource(readFileSync(path.join(dir, 'source.ipynb'), 'utf8')));
  if (opts.flags.has('-m') || opts.flags.has('--metadata')) {
    const data = {
      id: `${owner}/${slug}`,
      id_no: k.id_no ?? 1000001,
      title: k.title ?? slug,
      code_file: codeFile,
      language: k.language ?? 'python',
      kernel_type: k.kernel_type ?? 'notebook',
      is_private: k.is_private ?? false,
      enable_gpu: k.enable_gpu ?? false,
      enable_tpu: false,
      enable_internet: k.enable_internet ?? false,
      keywords: k.keywords ?? [],
      dataset_sources: k.dataset_sources ?? [],
      kernel_sources: k.kernel_sources ?? [],
      competition_sources: k.competition_sources ?? [],
      model_sources: k.model_sources ?? [],
      docker_image: 'gcr.io/kaggle-images/python',
      machine_shape: 'None',
      ...(k.extra_metadata ?? {}),
    };
    // json.dump(data, f, indent=2)
    writeFileSync(path.join(target, 'kernel-metadata.json'), asciiJson(JSON.stringify(data, null, 2)));
    out(`Source code and metadata downloaded to ${target}`);
  } else {
    out(`Source code downloaded to ${path.join(target, codeFile)}`);
  }
} else if (key === 'datasets metadata') {
  const ref = opts.positional[0] ?? opts.values.dataset;
  if (!ref) usage('the following arguments are required: dataset');
  const [owner, slug] = splitRef(ref, 'Dataset');
  const endpoint = 'datasets.DatasetApiService/GetDatasetMetadata';
  if (!auth.ok) httpError(401, endpoint);
  fault('datasets metadata', ref, endpoint);
  const dir = path.join(server, 'datasets', owner, slug);
  if (!existsSync(path.join(dir, 'dataset.json'))) httpError(404, endpoint);
  const d = readJson(path.join(dir, 'dataset.json'));
  if (d.isPrivate && owner !== auth.username) httpError(403, endpoint);
  const info = {
    datasetId: d.datasetId ?? 2000001,
    datasetSlug: slug,
    ownerUser: owner,
    usabilityRating: d.usabilityRating ?? 0.88,
    totalViews: 1234,
    totalVotes: 12,
    totalDownloads: 345,
    title: d.title ?? slug,
    subtitle: d.subtitle ?? '',
    description: d.description ?? '',
    isPrivate: Boolean(d.isPrivate),
    keywords: d.keywords ?? [],
    licenses: d.licenses ?? [],
    collaborators: [],
    data: [],
    ...(d.extra_metadata ?? {}),
  };
  const target = opts.values.path ?? process.cwd();
  mkdirSync(target, { recursive: true });
  const file = path.join(target, 'dataset-metadata.json');
  // As the real CLI writes it: dataset_metadata() calls
  // `response.to_json(response.info)`, i.e. the whole ApiGetDatasetMetadataResponse
  // (kagglesdk's to_json takes ignore_defaults, not the object), so the file
  // is {"info": {...}} on one line with fields at their default (0, false,
  // [], unset) left out — dataset_metadata_update reads it back with
  // `metadata.get("info") or metadata`.
  writeFileSync(file, pythonJson({ info: dropDefaults(info) }));
  out(`Downloaded metadata to ${file}`);
} else if (key === 'datasets download') {
  const ref = opts.positional[0] ?? opts.values.dataset;
  if (!ref) usage('the following arguments are required: dataset');
  const [owner, slugWithVersion] = splitRef(ref.replace(/\/versions\/\d+$/, ''), 'Dataset');
  const slug = slugWithVersion;
  // dataset_download_cli asks for the dataset's metadata first (for the licences it prints), so a missing or
  // private dataset fails on that request; no licence → its placeholder text.
  const endpoint = 'datasets.DatasetApiService/GetDatasetMetadata';
  if (!auth.ok) httpError(401, endpoint);
  fault('datasets download', ref, endpoint);
  const dir = path.join(server, 'datasets', owner, slug);
  if (!existsSync(path.join(dir, 'dataset.json'))) httpError(404, endpoint);
  const d = readJson(path.join(dir, 'dataset.json'));
  if (d.isPrivate && owner !== auth.username) httpError(403, endpoint);
  out(`Dataset URL: https://www.kaggle.com/datasets/${owner}/${slug}`);
  const licenses = (d.licenses ?? []).map((l) => l.name).filter(Boolean);
  out(
    `License(s): ${licenses.length > 0 ? licenses.join(',') : 'Error retrieving license. Please visit the Dataset URL to view license information.'}`,
  );
  const target = opts.values.path ?? process.cwd();
  mkdirSync(target, { recursive: true });
  const zip = path.join(target, `${slug}.zip`);
  const entries = existsSync(path.join(dir, 'files')) ? listFiles(path.join(dir, 'files')) : [];
  if (existsSync(path.join(dir, 'zip-extra.json'))) entries.push(...readJson(path.join(dir, 'zip-extra.json')));
  out(`Downloading ${slug}.zip to ${target}`);
  writeZip(zip, entries);
  progress(statSync(zip).size);
  out('');
} else if (key === 'competitions download') {
  const name = opts.values.competition ?? opts.positional[0];
  if (!name) fail('No competition specified');
  const endpoint = 'competitions.CompetitionApiService/DownloadDataFiles';
  if (!auth.ok) httpError(401, endpoint);
  fault('competitions download', name, endpoint);
  const dir = path.join(server, 'competitions', name);
  if (!existsSync(path.join(dir, 'competition.json'))) httpError(404, endpoint);
  const c = readJson(path.join(dir, 'competition.json'));
  if (!c.rulesAccepted) httpError(403, endpoint);
  const target = opts.values.path ?? process.cwd();
  mkdirSync(target, { recursive: true });
  const zip = path.join(target, `${name}.zip`);
  out(`Downloading ${name}.zip to ${target}`);
  writeZip(zip, listFiles(path.join(dir, 'files')));
  progress(statSync(zip).size);
  out('');
} else {
  usage(`argument ${group} command: invalid choice: '${sub ?? ''}'`);
}
