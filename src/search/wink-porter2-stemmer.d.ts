/** Types for npm `wink-porter2-stemmer` 2.0.1 (Porter2 / Snowball English; it ships none). */
declare module 'wink-porter2-stemmer' {
  /** The Porter2 stem of one lower-case English word. */
  function stem(word: string): string;
  export default stem;
}
