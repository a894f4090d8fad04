package io.stunwatch.metrics;

import java.util.Locale;

/** Why a scrape of an exporter gave no page: the values of tag {@link Meters#TAG_REASON} on scrape failures. */
public enum ScrapeFailure {
  /** No answer within the scrape timeout. */
  TIMEOUT,
  /** No connection: refused, unresolvable, TLS refused. */
  UNREACHABLE,
  /** An answer other than 200. */
  HTTP_STATUS,
  /** A page larger than the limit, or with no sample the format allows. */
  MALFORMED,
  /** A well-formed page with none of the GPU families Stunwatch reads: not a GPU exporter's, or a newer one's. */
  NO_GPU_FAMILIES;

  public String tag() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
