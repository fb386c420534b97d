"""What the model families share: reading examples into batches (`examples`), vocabularies (`vocab`),
attention and the teacher-forced pass (`attention`), the window families' training task (`window_task`) and
loaded decoder (`window`). No family owns these; a family imports them."""
