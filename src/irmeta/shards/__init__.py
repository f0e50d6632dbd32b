"""Topic-sharded evaluation: campaigns larger than memory, on one machine or on Dask.

Every measure of irmeta is a function of one topic's rankings across all runs, so a
campaign can be cut into **shards** of consecutive topics (in the campaign's topic
order), each evaluated alone, and the per-topic values concatenated. The modules:

* :mod:`~irmeta.shards.plan` — the memory budget and how many topics a shard holds;
* :mod:`~irmeta.shards.parquet` — the Parquet campaign: runs and qrels as Parquet files
  whose row groups are blocks of topics, and reading the rows of one shard;
* :mod:`~irmeta.shards.partition` — the partitioning pass: TREC files (sorted by topic
  or not) read one at a time and written as a Parquet campaign (``irmeta convert``,
  and the spill files of a streaming evaluation);
* :mod:`~irmeta.shards.shard` — one shard's evaluation, a function of file paths that
  runs on this machine or on a Dask worker;
* :mod:`~irmeta.shards.summary` — what :class:`~irmeta.evaluation.Results` keeps of a
  campaign it never held whole;
* :mod:`~irmeta.shards.local` — the driver: plan, partition, evaluate shard by shard
  (two passes for best-per-group priors), gather;
* :mod:`~irmeta.shards.dask` — the same tasks on ``dask.distributed``.

``docs/scaling.md`` describes the design and the measured memory model.
"""
