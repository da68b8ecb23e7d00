"""Operations: health and readiness probes, Prometheus metrics, structured logs."""
