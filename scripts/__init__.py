"""Developer scripts (benchmarks, anchors)."""
