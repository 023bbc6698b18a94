// A scripted model for the real agent hosts: one HTTP server on 127.0.0.1 that answers Anthropic
// Messages (Claude Code; Copilot CLI's anthropic provider) and OpenAI Responses (Codex) with SSE,
// playing a list of turns, and keeps every request body so a test can read what the host sent
// the model: the tools offered, each tool result (a hook's deny reason), the context a hook added.
import * as fs from 'node:fs';
import * as http from 'node:http';

/**
 * A turn is `{ text }`, `{ calls: [{ name, input, namespace? }] }` (tool calls by the host's real
 * tool names; a string input is a freeform tool's text, as Codex's apply_patch takes it), or both;
 * `contextFull: true` reports a nearly full context window (the host compacts). A turn may also be
 * a function `(requestBody) => turn`, to react to what the host sent (a plan id in a tool result).
 */
export const say = (text) => ({ text });

/** The text of a tool result or message content, in either API's shapes. */
function textOf(v) {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((c) => (typeof c === 'string' ? c : c.text ?? '')).join('\n');
  if (v && typeof v === 'object') return v.content !== undefined ? textOf(v.content) : JSON.stringify(v);
  return '';
}

/** Every tool result in a request body, oldest first: `{ id, name, text }`. */
export function toolResults(body) {
  const names = new Map();
  const out = [];
  for (const m of body.messages ?? []) {
    for (const c of Array.isArray(m.content) ? m.content : []) {
      if (c.type === 'tool_use') names.set(c.id, c.name);
      if (c.type === 'tool_result') out.push({ id: c.tool_use_id, name: names.get(c.tool_use_id), text: textOf(c.content) });
    }
  }
  for (const i of body.input ?? []) {
    if (i.type === 'function_call' || i.type === 'custom_tool_call') names.set(i.call_id, i.name);
    if (i.type === 'function_call_output' || i.type === 'custom_tool_call_output') out.push({ id: i.call_id, name: names.get(i.call_id), text: textOf(i.output) });
  }
  return out;
}

/** The last tool result of a request (what the model reacts to), or undefined. */
export const lastResult = (body) => toolResults(body).at(-1);

/** All of a request body as text, for finding what a host or a hook put in it. */
export const allText = (body) => JSON.stringify(body);

/** A call matcher: the call's input (its text, for a freeform tool) holds `text`. */
export const inputHas = (text) => (c) => (typeof c.input === 'string' ? c.input : JSON.stringify(c.input)).includes(text);

/** The names of the tools a request offered. */
export const toolNames = (body) => (body.tools ?? []).map((t) => t.name).filter(Boolean);

function lastUserText(body) {
  const m = (body.messages ?? []).filter((x) => x.role === 'user').at(-1);
  return m ? textOf(m.content) : '';
}

// Claude Code's and Copilot CLI's compaction prompts (sent with the tools still offered).
const SUMMARY_ASKED = /^Your task is to create a detailed summary|^Please create a detailed summary of the conversation so far/m;

/**
 * A request that is the agent's turn, as opposed to a side request the host makes for itself (a
 * title, a compaction summary: no tools offered, or a summary asked for): those are answered
 * without using a turn of the script.
 */
const isTurn = (body) => toolNames(body).length > 0 && !SUMMARY_ASKED.test(lastUserText(body));

/** A request body as JSON (a body that is not JSON is kept as `{ raw }`). */
function parsed(raw) {
  try {
    return raw ? JSON.parse(raw) : {};
  } catch {
    return { raw };
  }
}

/** Starts the server on a random port; `log`: a file that gets every request as a JSON line (debugging). */
export async function startModelServer({ log } = {}) {
  let turns = [];
  const requests = [];
  const calls = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = parsed(Buffer.concat(chunks).toString('utf8'));
      const entry = { method: req.method, path: (req.url ?? '').split('?')[0], body, turn: false };
      requests.push(entry);
      if (log) fs.appendFileSync(log, JSON.stringify({ method: req.method, url: req.url, body }) + '\n');
      try {
        route(entry, res);
      } catch (e) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'script_error', message: String(e?.stack ?? e) } }));
      }
    });
  });

  function nextTurn(entry, api) {
    entry.turn = true;
    const t = turns.shift();
    // A script that ran out ends the turn: the host stops instead of waiting.
    const turn = (typeof t === 'function' ? t(entry.body) : t) ?? { text: 'Done.' };
    // Each call gets its id here, so a test finds the result of exactly that call.
    const made = (turn.calls ?? []).map((c) => ({ ...c, id: newId(api === 'anthropic' ? 'toolu' : 'call') }));
    calls.push(...made);
    return { ...turn, calls: made };
  }

  function route(entry, res) {
    const { method, path, body } = entry;
    if (method === 'GET' && path.endsWith('/models')) return json(res, { object: 'list', data: [{ id: 'scripted', object: 'model', type: 'model', display_name: 'Scripted', created_at: '2025-01-01T00:00:00Z' }], has_more: false });
    if (method !== 'POST') return json(res, {});
    if (path.endsWith('/messages/count_tokens')) return json(res, { input_tokens: 1000 });
    if (path.endsWith('/messages')) {
      const turn = isTurn(body) ? nextTurn(entry, 'anthropic') : { text: sideText(body) };
      return body.stream === false ? json(res, anthropicMessage(turn, body)) : sse(res, anthropicEvents(turn, body));
    }
    if (path.endsWith('/responses')) return sse(res, responsesEvents(isTurn(body) ? nextTurn(entry, 'responses') : { text: 'A scripted session.' }));
    return json(res, {});
  }

  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    /**
     * Sets the turns the next agent requests get, in order (undefined entries are skipped: a step
     * a host does not need), and forgets the requests and calls of the last script.
     */
    play(list) {
      turns = list.filter((t) => t !== undefined);
      requests.length = 0;
      calls.length = 0;
    },
    /** How many scripted turns were not played. */
    remaining: () => turns.length,
    /** The bodies of the requests that were the agent's turns (side requests left out). */
    turnRequests: () => requests.filter((r) => r.turn).map((r) => r.body),
    /**
     * Every tool result the host sent back, oldest first, each once (a compacted or resumed
     * conversation drops or repeats earlier ones): `{ id, name, text, input }`.
     */
    results() {
      const seen = new Map();
      for (const r of requests.filter((q) => q.turn)) for (const x of toolResults(r.body)) if (!seen.has(x.id)) seen.set(x.id, { ...x, input: calls.find((c) => c.id === x.id)?.input });
      return [...seen.values()];
    },
    /** The results of the scripted calls `match(call)` accepts (call: `{ name, input }`), in order. */
    resultsOf(match) {
      const ids = calls.filter(match).map((c) => c.id);
      return this.results().filter((r) => ids.includes(r.id));
    },
    /** The result of the first scripted call `match(call)` accepts, or undefined. */
    resultOf(match) {
      return this.resultsOf(match)[0];
    },
    /** The id of the plan the n-th pi_plan_create call created (by its result), in any host's naming of the tool. */
    created(n = 0) {
      return /PLAN-[0-9a-f]{8}/.exec(this.resultsOf((c) => /pi_plan_create$/.test(c.name))[n]?.text ?? '')?.[0];
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A side request's answer: a compaction summary in the form Claude Code reads, else a line of text. */
function sideText(body) {
  if (SUMMARY_ASKED.test(lastUserText(body))) return '<analysis>A scripted session.</analysis>\n<summary>The scripted session so far.</summary>';
  return 'A scripted session.';
}

function json(res, o) {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(o));
}

function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

let seq = 0;
const newId = (prefix) => `${prefix}_${Date.now().toString(36)}${(++seq).toString(36)}`;

/** Tokens reported for a nearly full context: past every host's compaction threshold (Claude's 1M window, gpt-5.5's, Copilot's 200k). */
const FULL = 990_000;

function anthropicMessage(turn, body) {
  const content = [];
  if (turn.text) content.push({ type: 'text', text: turn.text });
  for (const c of turn.calls ?? []) content.push({ type: 'tool_use', id: c.id ?? newId('toolu'), name: c.name, input: c.input ?? {} });
  const usage = { input_tokens: turn.contextFull ? FULL : 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  return { id: newId('msg'), type: 'message', role: 'assistant', model: body.model ?? 'scripted', content, stop_reason: turn.calls?.length ? 'tool_use' : 'end_turn', stop_sequence: null, usage };
}

function anthropicEvents(turn, body) {
  const m = anthropicMessage(turn, body);
  const events = [{ type: 'message_start', message: { ...m, content: [], stop_reason: null, usage: { ...m.usage, output_tokens: 1 } } }];
  m.content.forEach((b, index) => {
    const delta = b.type === 'text' ? { type: 'text_delta', text: b.text } : { type: 'input_json_delta', partial_json: JSON.stringify(b.input) };
    events.push({ type: 'content_block_start', index, content_block: b.type === 'text' ? { type: 'text', text: '' } : { ...b, input: {} } });
    events.push({ type: 'content_block_delta', index, delta });
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: m.stop_reason, stop_sequence: null }, usage: { output_tokens: m.usage.output_tokens } });
  events.push({ type: 'message_stop' });
  return events;
}

function responsesEvents(turn) {
  const rid = newId('resp');
  const items = [];
  if (turn.text) items.push({ type: 'message', role: 'assistant', id: newId('msg'), content: [{ type: 'output_text', text: turn.text, annotations: [] }] });
  for (const c of turn.calls ?? []) {
    if (typeof c.input === 'string') items.push({ type: 'custom_tool_call', id: newId('ctc'), call_id: c.id ?? newId('call'), name: c.name, input: c.input });
    else items.push({ type: 'function_call', id: newId('fc'), call_id: c.id ?? newId('call'), name: c.name, ...(c.namespace ? { namespace: c.namespace } : {}), arguments: JSON.stringify(c.input ?? {}) });
  }
  const tokens = turn.contextFull ? FULL : 100;
  const usage = { input_tokens: tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: tokens + 10 };
  return [
    { type: 'response.created', response: { id: rid } },
    ...items.map((item, output_index) => ({ type: 'response.output_item.done', output_index, item })),
    { type: 'response.completed', response: { id: rid, usage } },
  ];
}
