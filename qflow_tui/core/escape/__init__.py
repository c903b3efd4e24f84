"""Text from outside (model, workflow and dataset names, problem ids, step and
agent names, a verdict's detail) made safe for the file format it lands in, one
module per format: :mod:`.markdown`, :mod:`.latex`, :mod:`.csvcells` and
:mod:`.jsontext`. Every renderer of a table or a report goes through these, so
a name is escaped the same way wherever it is printed (DESIGN.md, "What leaves
the terminal")."""
