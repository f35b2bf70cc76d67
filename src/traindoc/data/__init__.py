"""Dataset audit: readers, field detection, MinHash/LSH, the streaming audit, Dask."""
