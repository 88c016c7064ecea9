import { checkSchema, formatIssue, type TaskKind } from '@junobench/core';

/** What a reply gave: an answer in the predictions format, or why it gives none (an abstention). */
export type ParsedReply = { answer: Record<string, unknown> } | { problem: string };

/** The keys an answer of each kind may carry; anything else a model adds (an explanation…) is dropped. */
const ANSWER_KEYS: Record<TaskKind, readonly string[]> = {
  detect: ['crashes', 'cell', 'exception'],
  diagnose: ['library', 'crashType', 'rootCause', 'pipelineStage', 'diagnosis'],
  repair: ['notebook', 'cells'],
};

/**
 * The JSON object of a model's reply: the reply itself when it is one, else the last fenced block (```json … ```) that
 * is one, else the last balanced `{…}` in the prose that parses. Undefined when there is none.
 */
export function extractJsonObject(text: string): Record<string, unknown> | undefined {
  const asObject = (s: string): Record<string, unknown> | undefined => {
    try {
      const v: unknown = JSON.parse(s);
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  const whole = asObject(text.trim());
  if (whole) return whole;
  const fenced = [...text.matchAll(/```[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g)].map((m) => m[1]!);
  for (const block of fenced.reverse()) {
    const v = asObject(block.trim());
    if (v) return v;
  }
  const spans = listBraceSpans(text);
  for (const [start, end] of spans.reverse()) {
    const v = asObject(text.slice(start, end));
    if (v) return v;
  }
  return undefined;
}

/** The top-level `{…}` spans of a text, strings respected (a brace inside "…" does not count). */
function listBraceSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) spans.push([start, i + 1]);
    }
  }
  return spans;
}

/**
 * A model's reply to a task as an answer of the predictions format (schemas/prediction.schema.json), or the reason it
 * is none: no JSON object in it, or one that does not validate (a label outside its vocabulary, a wrong type).
 */
export function parseModelAnswer(kind: TaskKind, id: string, text: string): ParsedReply {
  const obj = extractJsonObject(text);
  if (!obj) return { problem: 'the reply holds no JSON object' };
  const answer: Record<string, unknown> = {};
  for (const k of ANSWER_KEYS[kind]) if (obj[k] !== undefined) answer[k] = obj[k];
  if (Object.keys(answer).length === 0)
    return { problem: `the reply's JSON has none of ${ANSWER_KEYS[kind].join(', ')}` };
  const issues = checkSchema('prediction', { task: kind, id, attempt: 1, answer });
  if (issues.length > 0)
    return { problem: `the reply's answer is not valid: ${formatIssue(issues[0]!).replace(/^answer\.?/, '')}` };
  return { answer };
}
