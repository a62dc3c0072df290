// Ends the region out_of_line_begin.cuh opened: XSF_HOST_DEVICE as it was.
#pragma pop_macro("XSF_HOST_DEVICE")
