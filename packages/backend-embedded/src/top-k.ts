/** Selection of the k best rows of a scan, for the vector and the word rankings. */

/** Bounded min-heap keeping the k best (score desc, id asc) rows seen; the root is the worst kept. */
export class TopK {
  private readonly rows: Int32Array;
  private readonly scores: Float64Array;
  private length = 0;

  constructor(
    private readonly k: number,
    private readonly ids: Float64Array,
  ) {
    this.rows = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  /** True when (scoreA, rowA) ranks below (scoreB, rowB). */
  private worse(scoreA: number, rowA: number, scoreB: number, rowB: number): boolean {
    return scoreA < scoreB || (scoreA === scoreB && (this.ids[rowA] as number) > (this.ids[rowB] as number));
  }

  /** Scores below this cannot enter (-Infinity until k rows are kept); one equal to it may, by id. */
  get threshold(): number {
    return this.length < this.k ? Number.NEGATIVE_INFINITY : (this.scores[0] as number);
  }

  offer(row: number, score: number): void {
    if (this.length < this.k) {
      // Sift up.
      let i = this.length++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(score, row, this.scores[parent] as number, this.rows[parent] as number)) break;
        this.rows[i] = this.rows[parent] as number;
        this.scores[i] = this.scores[parent] as number;
        i = parent;
      }
      this.rows[i] = row;
      this.scores[i] = score;
      return;
    }
    if (!this.worse(this.scores[0] as number, this.rows[0] as number, score, row)) return;
    // Replace the root and sift down.
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.k) break;
      const right = left + 1;
      let child = left;
      if (right < this.k && this.worse(this.scores[right] as number, this.rows[right] as number, this.scores[left] as number, this.rows[left] as number))
        child = right;
      if (!this.worse(this.scores[child] as number, this.rows[child] as number, score, row)) break;
      this.rows[i] = this.rows[child] as number;
      this.scores[i] = this.scores[child] as number;
      i = child;
    }
    this.rows[i] = row;
    this.scores[i] = score;
  }

  sorted(): { row: number; score: number }[] {
    const out: { row: number; score: number }[] = [];
    for (let i = 0; i < this.length; i++) out.push({ row: this.rows[i] as number, score: this.scores[i] as number });
    return out.sort((a, b) => b.score - a.score || (this.ids[a.row] as number) - (this.ids[b.row] as number));
  }
}
