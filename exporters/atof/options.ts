import type { AtofRotateOptions } from "./rotation.js";

/** Buffer bounds shared by both sinks; past them events are dropped and counted. */
export interface AtofBufferOptions {
  /** Default 10,000 lines. */
  maxBufferedLines?: number;
  /** Default 16 MiB of UTF-8 line bytes. */
  maxBufferedBytes?: number;
}

/** An ATOF exporter that writes JSONL lines to a local file (fsynced on flush). */
export interface AtofFileOptions extends AtofBufferOptions {
  type: "file";
  /** File to write; relative paths resolve against `outputDirectory` (default: the working directory). */
  path?: string;
  /** Directory for the default file name `relaytrace-atof-<UTC time>-<pid>.jsonl`; created if missing. */
  outputDirectory?: string;
  /**
   * `append` (default) keeps existing lines (a torn last line left by a killed writer is cut off
   * first, and reported); `overwrite` truncates the file when it is first opened.
   */
  mode?: "append" | "overwrite";
  /** Write through a symbolic link at `path` or `outputDirectory` (default false: a link there is refused at construction). */
  followSymlinks?: boolean;
  /**
   * Write a set of files, one after another, instead of one file that grows without bound: named
   * `<stem>.<UTC start time>.jsonl` (the stem is `path` without its extension, default
   * `relaytrace-atof`), so their names sort in write order. Unset: one file, as above.
   */
  rotate?: AtofRotateOptions;
}

/** An ATOF exporter that POSTs batches of JSONL lines to an HTTP receiver, with retries. */
export interface AtofStreamOptions extends AtofBufferOptions {
  type: "stream";
  /** Receiver of `POST` requests with `content-type: application/x-ndjson`; required, an absolute http(s) URL. */
  url: string;
  /** Extra HTTP headers on every request (e.g. an auth token). */
  headers?: Record<string, string>;
  /** Per request; default 10,000 ms. */
  timeoutMillis?: number;
  /** Retries after the first attempt; default 3. */
  maxRetries?: number;
  /** First retry delay, doubled each retry; default 200 ms. */
  retryBaseMillis?: number;
  /** Lines per request; default 1,000. */
  maxBatchLines?: number;
  /** How long a partial batch waits for more events; default 100 ms. */
  flushIntervalMillis?: number;
}

/** Options of `AtofExporter`, by sink `type`; unknown keys and wrong values throw a `TypeError` at construction. */
export type AtofExporterOptions = AtofFileOptions | AtofStreamOptions;
