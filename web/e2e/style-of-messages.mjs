// The checks a message of the web table must pass, shared by the catalogue's test and the browser test (which runs
// them on the text the page shows): rioplatense voseo (jugás, cantás, te toca; never tú nor the third person for
// the viewer), a capital at the start of each sentence, balanced ¡!, ¿?, «» and parentheses, no leftovers of code.

/** Third-person or tú forms that must never speak to the viewer. */
const NOT_VOSEO = /\b(Vos (juega|canta|quiere|gana|tira|se va|echa|reparte|contesta|muestra|tiene|hace|dejó|volvió)|tienes|juegas|cantas|quieres|puedes|eliges|eres|estás tú|tú)\b/i;
/** English words that would mean a label was left untranslated. */
const ENGLISH = /\b(the|you|your|seat|team|player|wins?|waiting|turn|card|round|score|error|undefined|null|NaN)\b/;
/** A verb in the vos form (present, preterite) or the viewer named as "vos"/"te". */
const VOS_FORM = /(ás|és|ís|aste|iste)\b|\b[Vv]os\b|\b[Tt]e\b|\b[Tt]u\b/;

function balanced(text, open, close) {
  let depth = 0;
  for (const char of text) {
    if (char === open) depth++;
    if (char === close) depth--;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** What is wrong with `text` (empty when nothing is); `aboutViewer`: the sentence is about the viewer's own act. */
export function problems(text, aboutViewer = false) {
  const found = [];
  // A refusal ends with the server's own code and message, for developers, in English: "(NOT_YOUR_TURN: ...)".
  text = text.replace(/ \([^()]*: [^()]*\)$/, "").replace(/https?:\/\/\S+/g, "LINK");
  const trimmed = text.trim();
  if (!trimmed) return ["empty"];
  if (text !== trimmed || /\s{2,}/.test(text)) found.push("stray blanks");
  if (/ [.,;:!?)]/.test(text)) found.push("a blank before punctuation");
  if (/\?(?!\))|\?\?/.test(text.replace(/¿[^?]*\?/g, ""))) found.push("a question mark without its opening ¿");
  // A number may be signed: a rating in the ranking is below zero until a player has won a few ("-1,8").
  if (!/^[¡¿«(]*(?:[-−]\d|[A-ZÁÉÍÓÚÑ0-9])/.test(trimmed)) found.push("does not start with a capital");
  for (const [index, sentence] of trimmed.split(/(?<=[.!?])\s+(?=\S)/).entries()) {
    if (index > 0 && !/^[¡¿«(]*[A-ZÁÉÍÓÚÑ0-9]/.test(sentence)) found.push(`sentence ${index + 1} starts in lower case`);
  }
  for (const [open, close] of [["¡", "!"], ["¿", "?"], ["«", "»"], ["(", ")"]]) {
    if (!balanced(text, open, close)) found.push(`unbalanced ${open}${close}`);
  }
  if (NOT_VOSEO.test(text)) found.push("not voseo");
  if (ENGLISH.test(text)) found.push("English or code in the words");
  if (/[{}]/.test(text)) found.push("a field of the catalogue's template left unfilled");
  if (aboutViewer && !VOS_FORM.test(text)) found.push("about the viewer but no vos form");
  return found;
}
