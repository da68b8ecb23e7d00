"""Zhejiang and Fujian mahjong server."""
