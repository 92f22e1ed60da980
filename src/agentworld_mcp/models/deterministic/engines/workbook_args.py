"""The argument names spreadsheet tools give a workbook file, a sheet and a range (shared by selection and answers)."""

PATH_ARGS = ("path", "filepath", "file_path", "filename", "file_name", "workbook_path", "workbook", "file")
SHEET_ARGS = ("sheet", "sheet_name", "sheetname", "worksheet", "worksheet_name", "source_sheet", "tab")
RANGE_ARGS = ("range", "cell_range", "a1_range", "source_range", "source")
