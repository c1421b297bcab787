/** One query of an evaluation set: its text and the index (into the set's documents) of the one right answer. */
export interface EvalQuery {
  text: string;
  target: number;
}

/**
 * An evaluation set: documents loaded into one owner, and one or more kinds of queries over them (for
 * instance a paraphrase and its lexical twin), each kind scored on its own.
 */
export interface EvalSet {
  name: string;
  /** One line: where the text comes from and how queries are made. */
  about: string;
  documents: string[];
  queries: Record<string, EvalQuery[]>;
}
