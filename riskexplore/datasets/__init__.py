"""Small public datasets bundled with riskexplore, for examples, tests and benchmarks.

>>> from riskexplore.datasets import load_dataset
>>> data = load_dataset("mammo")
>>> data.X.shape, int(data.y.sum())
((961, 14), 445)

Every dataset comes from the UCI Machine Learning Repository (CC BY 4.0); see
``README.md`` in this folder, :attr:`Dataset.source` or :func:`dataset_info` for the
citation, original authors and the cleaning applied.
"""

from riskexplore.datasets._loader import Dataset, dataset_info, list_datasets, load_dataset

__all__ = ["Dataset", "dataset_info", "list_datasets", "load_dataset"]
