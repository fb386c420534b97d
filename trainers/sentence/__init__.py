"""The whole-sentence normalizer family (Mansfield et al. 2019): SentencePiece pieces of the written sentence,
with linguistic features, in; the readings of its tokens, one span each, out."""
