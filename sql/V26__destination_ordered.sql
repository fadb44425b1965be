-- Whether a destination defined through the API keeps per-partition order
-- (dev.exactly.destination.Destination#ordered): true, the default, sends a partition's messages one
-- at a time in offset order; false sends the messages of a leased batch at once, each retried on
-- its own.
ALTER TABLE exactly.destinations ADD COLUMN ordered boolean NOT NULL DEFAULT true;
