"""Making pictures: card faces in many styles, scenes, videos, datasets, crops.
Nothing in companion.vision imports this package."""
