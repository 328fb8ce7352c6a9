"""Example bots for the reference client
(``python -m botclient --bot botclient.examples.highest_deadwood:make``)."""
