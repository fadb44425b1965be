-- When an instance whose configuration defines the destination (exactly.destinations.<name>.*,
-- dev.exactly.destination.ConfiguredDestinations) last said so, by the database's clock: set when
-- it starts the destination and every DestinationRepository.CONFIGURED_MARK_EVERY_MS while it
-- runs; NULL for a destination defined through the API that no configuration defines. A mark newer
-- than DestinationRepository.CONFIGURED_LIVE_MS is live: then every instance, whether or not its
-- own configuration defines the name, refuses a PUT or a DELETE of it through the API (409), in the
-- transaction of the write. An older one is stale (no instance has configured the name for that
-- long): the rows it left are then leftovers a DELETE removes.
ALTER TABLE exactly.destination_state ADD COLUMN configured_at timestamptz;
