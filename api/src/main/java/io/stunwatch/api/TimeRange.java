package io.stunwatch.api;

import java.time.Instant;

/**
 * A request's time range, both ends included, as {@link Params#range} checked it: {@code from} not after {@code to},
 * and no longer than the API's maximum.
 *
 * @param from its start
 * @param to   its end
 */
record TimeRange(Instant from, Instant to) {
}
