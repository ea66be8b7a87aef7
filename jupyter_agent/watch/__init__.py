"""What happened in the kernel since the agent last looked, and the note that tells the model."""
