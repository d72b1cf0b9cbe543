/** Types for npm `vader-sentiment` 1.1.3 (a JavaScript port of VADER; it ships none). */
declare module 'vader-sentiment' {
  const vader: {
    SentimentIntensityAnalyzer: {
      polarity_scores(text: string): { neg: number; neu: number; pos: number; compound: number };
    };
  };
  export default vader;
}
