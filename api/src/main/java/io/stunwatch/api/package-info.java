/**
 * The Vert.x HTTP API and the Micrometer Prometheus registry, reading the processor's state stores. Arrives with issue #6.
 */
package io.stunwatch.api;
