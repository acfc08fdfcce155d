# JupyterLab in a hub or Binder image built from this repository (postBuild copies this file to ~/.jupyter):
# open the lab on the first notebook instead of the file browser.
c = get_config()  # noqa: F821 (provided by Jupyter when it loads this file)
FIRST_NOTEBOOK = "/lab/tree/notebooks/00_getting_started.ipynb"
c.ServerApp.default_url = FIRST_NOTEBOOK
c.LabApp.default_url = FIRST_NOTEBOOK
