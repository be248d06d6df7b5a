-- Written by hand: ent/schema cannot express storage parameters.
-- Leave half of each email_log page free, so that the status updates of a delivery (queued →
-- sending → sent) fit beside the row and stay heap-only: no index entries written for them.
ALTER TABLE "email_log" SET (fillfactor = 50);
