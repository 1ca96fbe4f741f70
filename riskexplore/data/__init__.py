"""Input data handling: validation of features, outcome and weights
(:mod:`~riskexplore.data.validation`), reading CSV files
(:func:`~riskexplore.data.tables.read_csv_table`) and
binarization (:mod:`~riskexplore.data.binarize`)."""
