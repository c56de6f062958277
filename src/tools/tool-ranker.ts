// A deterministic ranker of tools for a plain-language task: BM25 over the words of each tool's name (split on
// camelCase), title and description, with a small stemmer, stopwords and verb synonyms. Pure, no dependencies: the
// tool-choice test (test/tool-choice/) runs it over committed tasks, and a discovery tool may reuse it.

export interface RankedTool {
  name: string;
  score: number;
}

export interface RankableTool {
  name: string;
  title: string;
  description: string;
}

const STOPWORDS = new Set(
  'a an the of to for in on at by with from and or is are be it its this that these those our my me i we you your all any each one some what which who whom how do does did please can could would should there their them then than as into about up out'.split(
    ' ',
  ),
);

/** Words a person uses for the verbs of the tool names. */
const SYNONYMS: Record<string, string[]> = {
  create: ['add'],
  report: ['add'],
  correct: ['update'],
  extend: ['update'],
  enable: ['update'],
  turn: ['update'],
  new: ['add'],
  record: ['add'],
  register: ['add'],
  log: ['add'],
  show: ['list'],
  read: ['get'],
  detail: ['get'],
  everything: ['get'],
  mark: ['update'],
  close: ['update'],
  plan: ['add'],
  write: ['add'],
  map: ['link'],
  unmap: ['unlink'],
  find: ['list'],
  search: ['list'],
  change: ['update'],
  edit: ['update'],
  set: ['update'],
  rename: ['update'],
  remove: ['delete'],
  erase: ['delete'],
  connect: ['link'],
  detach: ['unlink'],
  lower: ['update'],
  raise: ['update'],
  disconnect: ['unlink'],
  history: ['change'],
  who: ['change'],
  overview: ['summary'],
  standing: ['summary'],
  dashboard: ['summary'],
  control: ['measure'],
  safeguard: ['measure'],
  supplier: ['vendor'],
  employee: ['person'],
  staff: ['person'],
  colleague: ['member'],
  account: ['member'],
  user: ['member'],
  policy: ['document'],
  procedure: ['document'],
  finding: ['nonconformity'],
  gap: ['nonconformity'],
};

/** A word's stem: plural and verb endings off (risks -> risk, policies -> policy, approving -> approv). */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word === 'people') return 'person';
  for (const ending of ['ing', 'ed', 'es', 's']) {
    if (word.endsWith(ending) && word.length - ending.length >= 3 && !word.endsWith('ss'))
      return word.slice(0, -ending.length);
  }
  return word;
}

/** The words of a text: camelCase split, lower case, stopwords out, stemmed. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '' && !STOPWORDS.has(word))
    .map(stem);
}

/** The stems of the task's words in -ed (rejected, approved), which name a state rather than ask for an action. */
function pastForms(task: string): Set<string> {
  return new Set(
    task
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.endsWith('ed'))
      .map(stem),
  );
}

/** A task's words with the tool-name words their synonyms stand for. */
function queryWordsOf(task: string): string[] {
  const words = wordsOf(task);
  const raw = task.toLowerCase().split(/[^a-z0-9]+/);
  const extra = raw.flatMap((word) => SYNONYMS[word] ?? SYNONYMS[stem(word)] ?? []);
  return [...words, ...extra.map(stem)];
}

/**
 * What a task's verb adds to a tool whose name starts with it (getRisk for "get", addRisk for "record"): a tool name
 * is verbNoun, and the verb decides between the tools of one kind, whose descriptions share the kind's words.
 */
const VERB_BONUS = 8;

/** Field weights: a word of the name counts three times, of the title twice, of the description once. */
const WEIGHTS = { name: 3, title: 2, description: 1 } as const;
const K1 = 1.2;
const B = 0.75;

/** A ranker over a set of tools: `rank(task)` orders them, best first (ties by name, so the order is stable). */
export function createToolRanker(tools: Iterable<RankableTool>) {
  const documents = [...tools].map((tool) => {
    const words = [
      ...Array(WEIGHTS.name).fill(wordsOf(tool.name)).flat(),
      ...Array(WEIGHTS.title).fill(wordsOf(tool.title)).flat(),
      ...wordsOf(tool.description),
    ] as string[];
    const counts = new Map<string, number>();
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    const verb = stem(tool.name.replace(/[A-Z].*$/, ''));
    return { name: tool.name, verb, length: words.length, counts };
  });
  const average = documents.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, documents.length);
  const frequency = new Map<string, number>();
  for (const doc of documents)
    for (const word of doc.counts.keys()) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const idf = (word: string) => {
    const n = frequency.get(word) ?? 0;
    return Math.log(1 + (documents.length - n + 0.5) / (n + 0.5));
  };
  const verbs = new Set(documents.map((doc) => doc.verb));
  return {
    rank(task: string): RankedTool[] {
      const words = [...new Set(queryWordsOf(task))];
      // A verb in its past form describes a state ("approved or rejected"), not the action asked for.
      const asked = new Set(words.filter((word) => verbs.has(word) && !pastForms(task).has(word)));
      return documents
        .map((doc) => {
          let score = asked.has(doc.verb) ? VERB_BONUS : 0;
          for (const word of words) {
            const tf = doc.counts.get(word) ?? 0;
            if (tf === 0) continue;
            score += (idf(word) * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / average));
          }
          return { name: doc.name, score };
        })
        .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
    },
  };
}
