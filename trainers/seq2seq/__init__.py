"""The attention seq2seq normalizer: vocabularies, batches from Parquet, the network, training and loading."""
