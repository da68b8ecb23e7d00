"""A hand's settlement, from the hand's end to the ledger (`service.Settlement`): its record
(`record`), its store in batches (`settler`, `results`), the disconnect penalties
(`penalties`), the retries and the fence; it reports one fact, a hand settled
(`service.HandSettled`), to whoever subscribed."""
