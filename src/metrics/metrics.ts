import { createHistogram } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { sampleLoopDelay } from './loop-delay.js';

/** What the node's gauges read at each scrape: its parts as they stand, never a copy kept up to date. */
export interface MetricSources {
  /** The actor registry: owners in memory, the bytes the budget counts, and evictions since start. */
  actors: () => { readonly size: number; readonly residentBytes: number; readonly evictions: number };
  /** LMDB's environment statistics (`getStats()`): the map's size and the pages in use. */
  lmdb: () => { mapSize?: number; lastPageNumber?: number; pageSize?: number };
  temporal: () => { ready: boolean };
  /** Large aggregations' later halves since start: taken from the query helper thread, or gathered again. */
  queryHalves: () => { used: number; changed: number; failed: number };
}

/** The durable jobs a node waits on, as `engram_jobs_total` names them. */
export const JOBS = ['consolidate', 'caption_media', 'backfill_field'] as const;
export type JobName = (typeof JOBS)[number];

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** The period of the timers that sample the event loop's delay. */
const LOOP_RESOLUTION_MS = 10;
/** Finer around the tens of milliseconds, where a loaded node's delay sits and a p99 target is judged. */
const LOOP_DELAY_SECONDS = [0.001, 0.0025, 0.005, 0.0075, 0.01, 0.0125, 0.015, 0.0175, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * The node's Prometheus metrics (prom-client): the registry `GET /metrics` renders, and the instruments
 * the parts record into. Labels are bounded sets only (route templates, methods, status codes, job
 * names), never a raw path, an owner id or query text. Gauges read their sources when scraped.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Histogram<'method' | 'route' | 'status'>;
  readonly lmdbCommits: Histogram;
  readonly embedSeconds: Histogram;
  readonly embedQueued: Gauge;
  readonly jobs: Counter<'job' | 'outcome'>;
  private readonly loopSampler: { stop(): void };

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
    this.httpRequests = new Histogram({
      name: 'engram_http_request_duration_seconds',
      help: 'HTTP requests by method, route template ("unmatched" when none) and status, and how long each took to answer',
      labelNames: ['method', 'route', 'status'],
      buckets: SECONDS,
      registers,
    });
    this.lmdbCommits = new Histogram({
      name: 'engram_lmdb_commit_seconds',
      help: 'How long each LMDB commit batch took, from its start to its durable end',
      buckets: [0.0005, ...SECONDS.slice(0, 11)],
      registers,
    });
    this.embedSeconds = new Histogram({
      name: 'engram_embed_seconds',
      help: 'How long an embedding call of one or more texts took, its wait in the queue included',
      buckets: SECONDS,
      registers,
    });
    this.embedQueued = new Gauge({ name: 'engram_embed_queue_texts', help: 'Texts handed to the embedder and not yet embedded', registers });
    this.jobs = new Counter({
      name: 'engram_jobs_total',
      help: 'Durable jobs this node waited on, by job and outcome (completed or failed)',
      labelNames: ['job', 'outcome'],
      registers,
    });
    // Every series from the start at 0, so that a rate over it exists before the first job ends.
    for (const job of JOBS) for (const outcome of ['completed', 'failed']) this.jobs.inc({ job, outcome }, 0);
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    gauge('engram_resident_owners', 'Owner actors held in memory', () => sources.actors().size);
    gauge('engram_resident_bytes', 'Bytes of owner state the resident actors hold, as the residency budget counts them', () => sources.actors().residentBytes);
    gauge('engram_lmdb_map_size_bytes', 'The LMDB map size', () => sources.lmdb().mapSize ?? 0);
    gauge('engram_lmdb_used_bytes', 'Bytes of the LMDB map in use (last page number times page size)', () => {
      const stats = sources.lmdb();
      return (stats.lastPageNumber ?? 0) * (stats.pageSize ?? 0);
    });
    gauge('engram_temporal_ready', '1 while the node reaches Temporal (durable jobs run), else 0', () => (sources.temporal().ready ? 1 : 0));
    // One sampler feeds both: the histogram (any span) and the samples since the previous scrape (in µs; a
    // perf_hooks histogram records integers of at least 1). Not `monitorEventLoopDelay`: it records the time
    // between its timer's turns, never less than the timer's own period (an idle loop read 10 ms).
    const loopDelaySeconds = new Histogram({
      name: 'engram_event_loop_delay_seconds',
      help: "The event loop's delay: how late a timer due every 10 ms fired (histogram_quantile over any span)",
      buckets: LOOP_DELAY_SECONDS,
      registers,
    });
    const sinceScrape = createHistogram();
    this.loopSampler = sampleLoopDelay(LOOP_RESOLUTION_MS, (seconds) => {
      loopDelaySeconds.observe(seconds);
      sinceScrape.record(Math.max(1, Math.round(seconds * 1e6)));
    });
    gauge('engram_event_loop_delay_p99_seconds', "The event loop's delay, 99th percentile since the previous scrape", () => {
      const p99 = sinceScrape.count > 0 ? sinceScrape.percentile(99) / 1e6 : 0;
      sinceScrape.reset();
      return p99;
    });
    let evicted = 0;
    new Counter({
      name: 'engram_owner_evictions_total',
      help: 'Owner actors dropped from memory (least recently used past the budget, or idle)',
      registers,
      collect() {
        const total = sources.actors().evictions;
        this.inc(total - evicted);
        evicted = total;
      },
    });
    const halvesSeen = { used: 0, changed: 0, failed: 0 };
    new Counter({
      name: 'engram_query_halves_total',
      help: "Later halves of aggregations over 65,536 candidates or more, by outcome: used (the query helper thread's), changed (its snapshot held another index generation: the query ran again on the request's thread) or failed (the helper failed: the same)",
      labelNames: ['outcome'],
      registers,
      collect() {
        const now = sources.queryHalves();
        for (const outcome of ['used', 'changed', 'failed'] as const) {
          this.inc({ outcome }, now[outcome] - halvesSeen[outcome]);
          halvesSeen[outcome] = now[outcome];
        }
      },
    });
  }

  /** Records a job's outcome once `work` settles; `work` itself is returned unchanged. */
  job<T>(name: JobName, work: Promise<T>): Promise<T> {
    work.then(
      () => this.jobs.inc({ job: name, outcome: 'completed' }),
      () => this.jobs.inc({ job: name, outcome: 'failed' }),
    );
    return work;
  }

  /** The exposition text of every metric, and its content type. */
  async render(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  close(): void {
    this.loopSampler.stop();
  }
}
