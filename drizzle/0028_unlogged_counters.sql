-- The rate-limit counters (§9 BOOKING_RATE_LIMIT, §15 guest writes) write no WAL (issue 49): a
-- window's count lives a minute, every booking request bumps one, and 420 bytes of WAL a hit (a
-- tenth of a booking's) bought only that a crash or a failover keeps the current minute's counts.
-- After a crash PostgreSQL empties an unlogged table, and a standby does not have it: the
-- limits start that minute again from zero (docs/performance.md#what-a-booking-writes). Every
-- process still counts in the one table, so a limit holds across processes as before.
ALTER TABLE "rate_limit_counters" SET UNLOGGED;
