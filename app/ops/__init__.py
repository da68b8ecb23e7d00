"""Operations: health and readiness probes, Prometheus metrics, structured logs, the garbage
collector's tuning, stopping background tasks."""
