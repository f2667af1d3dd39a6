"""The class hub: nbgrader's exchange and JupyterHub for one class on one machine.

A package beside `helpers` and `qkv_classroom` (extra `hub`); `import helpers` never imports it.
`config` holds the nbgrader settings every role shares, `exchange` the exchange classes that keep
students apart, `spawner` the JupyterHub spawner, `setup` the accounts, folders and the hub itself
(run as ``python -m qkv_hub``; see deploy/hub/ and book/teacher_guide.md).
"""
