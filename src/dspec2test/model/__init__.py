"""The program model: what a Dafny program is once its files are read and its names resolved.

Every stage after the front end (partition, solve, emit, the action's scope) reads the program
through here: its files and includes or project, modules and imports, types, members with their
kind and ghostness, contracts, and the expression walkers they share.
"""
