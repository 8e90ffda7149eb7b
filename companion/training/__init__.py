"""The model's life cycle: train, export, evaluate, track-evaluate, model card,
enrolment. Nothing in companion.vision imports this package."""
