"""The span tagger family: which spans of spoken words are written otherwise than spoken, and of which class."""
