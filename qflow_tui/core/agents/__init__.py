"""One module per agent role of QualityFlow, each a small async function."""
