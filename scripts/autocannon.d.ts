// The part of autocannon's API the scale benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    /** Requests each connection sends in turn (instead of one request). */
    requests?: { method?: string; path?: string; headers?: Record<string, string>; body?: string }[];
  }
  interface Stats {
    average: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Stats;
    latency: Stats;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
