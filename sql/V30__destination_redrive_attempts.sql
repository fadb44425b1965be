-- The attempts a redrive of a destination's dead letter has made so far (dev.exactly.destination
-- .Dispatcher): written as exactly.destination_attempts is for a message not yet settled (attempt 1
-- once it failed and another follows, every later one before it is sent). A redrive taken up again
-- (a drain of the Lambda shape that left it because its backoff outlasted the drain, an instance
-- that stopped meanwhile) goes on from there, so its maxAttempts ends it. Set to 0 when a redrive
-- is asked for and when a redrive failed again (the row is deleted when one delivers).
ALTER TABLE exactly.destination_dead_letters ADD COLUMN redrive_attempts integer NOT NULL DEFAULT 0;
