-- Destinations of type sqs and eventbridge (dev.exactly.destination): their AWS settings beside
-- the http ones. url is an http destination's only; the others are an AWS destination's:
--   queue_url: sqs, the queue's URL (a name ending with .fifo is a FIFO queue);
--   event_bus, source, detail_type: eventbridge, the bus (name or ARN) and the events' Source and DetailType;
--   region, endpoint: sqs and eventbridge, the AWS region and a service endpoint instead of AWS's
--   regional one (both may be null: then the queue URL's or bus ARN's region, or the SDK's default).
-- No credential is stored: the AWS SDK's default credentials provider chain supplies them.
ALTER TABLE exactly.destinations
    ALTER COLUMN url DROP NOT NULL,
    ADD COLUMN queue_url   text,
    ADD COLUMN event_bus   text,
    ADD COLUMN source      text,
    ADD COLUMN detail_type text,
    ADD COLUMN region      text,
    ADD COLUMN endpoint    text;
