MXNET_CUDNN_AUTOTUNE_DEFAULT=0 python train_faster_rcnn.py --gpus 0,1,2,3 --dataset voc --network resnet50_v1b
