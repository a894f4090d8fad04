package io.stunwatch.processor.readmodel;

import io.stunwatch.model.json.Schema;

/**
 * The VM a migration belongs to, by migration id ({@link StoreNames#MIGRATION_OWNERS}): sent from the VM's partition
 * to the migration id's when the migration is first seen, and how the API finds the instance that holds it.
 *
 * @param vmKey       the key of the VM's records, which decides its partition
 * @param startMillis the migration's start, for forgetting it with the migrations
 */
@Schema(name = "store.migration-owner")
public record MigrationOwner(String vmKey, long startMillis) {
}
