"""The model boundary: what is sent to a model adapter and what streams back."""
